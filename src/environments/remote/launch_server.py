# Starts one resources server of the NeMo Gym install this interpreter belongs to, as NeMo Gym's own launcher
# starts each of its servers: the server's YAML resolved by NeMo Gym's parser, handed over in NEMO_GYM_CONFIG_DICT.
#   python launch_server.py <server> <host> <port>   (port 0: a free one)
# Prints one line `url <base URL>` on stdout, then becomes the server (exec), so stopping this pid stops it.
import os
import socket
import sys

USAGE = "usage: launch_server.py <server> <host> <port>"


def fail(message: str, status: int = 2) -> None:
    print(message, file=sys.stderr)
    sys.exit(status)


def servers_root() -> str:
    try:
        import resources_servers
    except ImportError:
        fail(f"{sys.executable} has no NeMo Gym install (no `resources_servers` package); run scripts/setup-nemo-gym.sh or pass the python of your NeMo Gym venv")
    # A namespace package: its one directory is the first entry of __path__.
    return list(resources_servers.__path__)[0]


def server_block(directory: str, name: str):
    """The top-level key and block of the server's config that declares `resources_servers.<name>`."""
    from omegaconf import OmegaConf

    configs = os.path.join(directory, "configs")
    # The config named after the server first: others in the folder are variants of it.
    candidates = sorted(os.listdir(configs), key=lambda f: f != f"{name}.yaml") if os.path.isdir(configs) else []
    for file in candidates:
        if not file.endswith((".yaml", ".yml")):
            continue
        conf = OmegaConf.load(os.path.join(configs, file))
        for top, block in conf.items():
            servers = block.get("resources_servers") if hasattr(block, "get") else None
            if servers is not None and name in servers:
                return top, block
    fail(f"resources server {name}: no config under {configs} declares resources_servers.{name}")


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def main() -> None:
    if len(sys.argv) != 4:
        fail(USAGE)
    name, host, port_text = sys.argv[1:]
    root = servers_root()
    directory = os.path.join(root, name)
    if not os.path.isfile(os.path.join(directory, "app.py")):
        known = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "app.py")))
        fail(f"no NeMo Gym resources server named {name!r} in {root}; known: {', '.join(known)}")

    from omegaconf import OmegaConf, open_dict
    from nemo_gym.global_config import GlobalConfigDictParser, GlobalConfigDictParserConfig

    top, block = server_block(directory, name)
    port = int(port_text) or free_port(host)
    with open_dict(block):
        block.resources_servers[name].host = host
        block.resources_servers[name].port = port
    # Only this server (no agent, no model): its config is all a resources server reads.
    initial = OmegaConf.merge(GlobalConfigDictParserConfig.NO_MODEL_GLOBAL_CONFIG_DICT, {top: block})
    config = GlobalConfigDictParser().parse(
        GlobalConfigDictParserConfig(initial_global_config_dict=initial, skip_load_from_cli=True, skip_load_from_dotenv=True)
    )
    os.environ["NEMO_GYM_CONFIG_DICT"] = OmegaConf.to_yaml(config)
    os.environ["NEMO_GYM_CONFIG_PATH"] = top
    url_host = f"[{host}]" if ":" in host else host
    print(f"url http://{url_host}:{port}", flush=True)
    os.chdir(directory)
    os.execv(sys.executable, [sys.executable, "app.py"])


if __name__ == "__main__":
    main()
