import socket
import threading

from std_pkg.server import Server, Upper


def test_round_trip():
    with Server(("127.0.0.1", 0), Upper) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            with socket.create_connection(server.server_address, timeout=5) as client:
                client.sendall(b"hi")
                assert client.recv(1024) == b"HI"
        finally:
            server.shutdown()
            thread.join()
