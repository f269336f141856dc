"""Imports SWE-bench 4.1.0's harness (and NeMo Gym's swebench server on it) without SWE-bench's heavy
dependencies: the modules it imports at load time but never calls while building test specs, grading
logs or running one instance (datasets, modal, ghapi, bs4, GitPython, tenacity, dotenv) are stand-ins
that accept any use. Shared by swebench.specs.py and swebench.cases.py.

The folder given holds SWE-bench 4.1.0, docker 7.1.0 and unidiff 0.7.5 unpacked (pure Python):
  pip download --no-deps swebench==4.1.0 docker==7.1.0 unidiff==0.7.5 -d wheels
  for w in wheels/*.whl; do python -m zipfile -e "$w" site/; done
"""
import importlib.abc, importlib.machinery, sys, types

STUBBED = ('datasets', 'modal', 'ghapi', 'bs4', 'git', 'fastcore', 'tenacity', 'dotenv')


class _Anything:
    """Any attribute, call, decoration or subclassing of it is another one of it."""
    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return _Anything()

    def __call__(self, *a, **k):
        return a[0] if len(a) == 1 and callable(a[0]) and not k else _Anything()

    def __mro_entries__(self, bases):
        return (object,)


class _Module(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return _Anything()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        return _Module(spec.name)

    def exec_module(self, module):
        pass


def load(site, nemo_gym_tree=None):
    """Puts SWE-bench's folder (and NeMo Gym's tree, when given) on the path with the stand-ins."""
    sys.meta_path.insert(0, _Finder())
    sys.path.insert(0, site)
    if nemo_gym_tree:
        sys.path.insert(0, nemo_gym_tree)
