import socket
import time

from port_pkg.greet import farewell, greeting

PORT = 8765  # a fixed port, as a server's test often has (tests/mu2py/score/test_ports.py sets a free one)


def test_words_while_serving():
    time.sleep(0.1)  # setting up
    with socket.socket() as server:
        server.bind(("127.0.0.1", PORT))
        server.listen()
        time.sleep(0.1)  # the server is up for a while
        words = (greeting(), farewell())
    assert len(words) == 2
