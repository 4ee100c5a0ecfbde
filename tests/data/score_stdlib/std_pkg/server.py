"""A TCP server that upper-cases what it gets; socketserver's own code reads `allow_reuse_address`."""

import socketserver


class Upper(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.sendall(self.request.recv(1024).upper())


class Server(socketserver.TCPServer):
    allow_reuse_address = True
