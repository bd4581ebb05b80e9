"""Byte pumps between two sockets: the demo phone's ADB `tcp:` forwards, and the test fakes that
relay traffic (SOCKS5 proxy, the S3 outage relay)."""

from __future__ import annotations

import contextlib
import socket
import threading

_QUICKACK = getattr(socket, "TCP_QUICKACK", None)


def pump(src: socket.socket, dst: socket.socket, *, half_close: bool = False) -> None:
    """Copy `src` to `dst` until `src` closes; then shut `dst`'s write side (`half_close`, so the
    peer still reads what is in flight) or both sockets entirely."""
    try:
        while chunk := src.recv(65536):
            if _QUICKACK is not None:
                # ACK at once: a client that sends headers and body apart (Nagle on its side)
                # otherwise waits out our delayed ACK, ~40 ms per request
                with contextlib.suppress(OSError):
                    src.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        for sock, how in ((dst, socket.SHUT_WR),) if half_close else ((src, socket.SHUT_RDWR), (dst, socket.SHUT_RDWR)):
            with contextlib.suppress(OSError):
                sock.shutdown(how)


def splice(a: socket.socket, b: socket.socket, *, half_close: bool = False) -> threading.Thread:
    """Copy both ways: `b` to `a` on a thread (returned), `a` to `b` here until `a` closes."""
    back = threading.Thread(target=pump, args=(b, a), kwargs={"half_close": half_close}, daemon=True)
    back.start()
    pump(a, b, half_close=half_close)
    return back
