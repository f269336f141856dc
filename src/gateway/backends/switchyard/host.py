# Hosts Switchyard's native server (nemo-switchyard's switchyard_rust.server) for the Gymflow gateway, which
# starts this script and reads one JSON line from it: where the proxy listens, or why the deployment was refused.
#   python host.py <deployment.toml> <port, 0 for a free one> [--check]
# The proxy runs until stdin closes (the gateway exited or stopped it) or SIGTERM; --check loads and exits.
import importlib.metadata
import json
import signal
import sys
import threading


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    deployment, port = sys.argv[1], int(sys.argv[2])
    check = "--check" in sys.argv[3:]
    try:
        version = importlib.metadata.version("nemo-switchyard")
        from switchyard_rust.server import Server, ServerConfigError
    except Exception as error:  # a broken or missing install: said in words, not as a traceback
        say({"error": f"cannot load nemo-switchyard: {error}", "kind": "install"})
        return 3
    try:
        server = Server(deployment, port=port)
    except ServerConfigError as error:
        say({"error": str(error), "kind": "config", "version": version})
        return 2
    except Exception as error:  # an unbindable port, an unreadable file
        say({"error": f"{type(error).__name__}: {error}", "kind": "start", "version": version})
        return 2
    # The native binding is thread-affine: the thread that built the server must close it, so the
    # main thread waits for the stop and closes it itself.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if not check:
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    say({"base_url": server.base_url, "port": server.port, "version": version})
    if not check:
        while not stop.wait(0.5):
            pass
    server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
