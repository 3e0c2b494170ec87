"""The probe program `Verifier` runs in each of its subprocesses (`python -c PROBE ...`):
it imports the generated packages it is sent on stdin from memory, mounts the server's
routes, resolves the client's model classes, and prints what it checked."""

# Run in each subprocess: argv = [roles ("server", "client" or "server,client"), their
# packages, comma-separated]; stdin: per role, in that order, a frame (8-byte big-endian
# length, then JSON: {"files": {module path relative to the role's directory: source},
# "only": the modules to import (null: all), "defer": a module whose classes' validators are
# built lazily (null: none), "mount": the server's tag router modules to mount (null: the
# whole API router)}, or "proven": nothing to check); the input ending before a frame means
# the build stopped: nothing to check. With a third argument "preload", a first frame
# {"files": ..., "module": the server's models module} comes before them (`Verifier.preload`).
# $SPEC_GEN_PROBE_CODE, when set: the directory of the modules' code objects compiled before.
# $SPEC_GEN_PROBE_NICE: how much lower the probe's priority is than the build's (default 10:
# while a rebuild renders, its own process comes first; 0 for a build with no last check to
# build on, whose whole check is most of its end; the tests, whose workers fill every core,
# set 0).
PROBE = r"""
import gc
gc.disable()  # a short-lived process: full collections over thousands of new classes, ~20%
import importlib, importlib.abc, importlib.util, inspect, json, linecache, os, sys, typing
roles = sys.argv[1].split(",")
try:  # below the build's own process: it renders while this imports, on as many cores
    os.nice(int(os.environ.get("SPEC_GEN_PROBE_NICE", "10")))
except (OSError, ValueError):
    pass
packages = dict(zip(roles, sys.argv[2].split(",")))
import pydantic
if "server" in roles:
    import fastapi, fastapi.routing, fastapi.params
    from fastapi import FastAPI
if "client" in roles:
    import httpx
try:  # the packages require pydantic[email] when the spec has email fields
    import email_validator
except ImportError:  # not installed here: EmailStr's check is only needed to validate
    import pydantic.networks
    pydantic.networks.import_email_validator = lambda: None
sources = {}  # module path -> source
modules = {}  # dotted name -> (path, is a package)


class InMemory(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in modules:
            return None
        where, is_package = modules[fullname]
        spec = importlib.util.spec_from_loader(fullname, self, origin=where, is_package=is_package)
        spec.has_location = True  # tracebacks and __file__ name the module's path
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        where = module.__spec__.origin
        source = sources[where]
        linecache.cache[where] = (len(source), None, source.splitlines(True), where)
        exec(compiled(source, where), module.__dict__)


CODE = os.environ.get("SPEC_GEN_PROBE_CODE")  # where compiled modules are kept, if anywhere


def compiled(source, where):
    # the code object of a source compiled before, by the hash of its path and text (a
    # rebuild's probe compiles only what changed); its use is marked by its time
    if not CODE:
        return compile(source, where, "exec")
    import hashlib, marshal
    path = os.path.join(CODE, hashlib.sha1(f"{where}\0{source}".encode()).hexdigest())
    try:
        with open(path, "rb") as kept:
            code = marshal.loads(kept.read())
        if type(code) is type(compiled.__code__):
            os.utime(path)
            return code
    except (OSError, ValueError, EOFError, TypeError):
        pass
    code = compile(source, where, "exec")
    try:
        os.makedirs(CODE, exist_ok=True)
        part = f"{path}.{os.getpid()}.part"
        with open(part, "wb") as out:
            out.write(marshal.dumps(code))
        os.replace(part, path)
    except OSError:
        pass
    return code


sys.meta_path.insert(0, InMemory())


def receive():
    head = sys.stdin.buffer.read(8)
    if len(head) < 8:
        return None
    return json.loads(sys.stdin.buffer.read(int.from_bytes(head, "big")))


def register(payload):
    for path, source in payload.items():
        sources[path] = source
        modules[name_of(path)] = (path, path.endswith("/__init__.py"))


preloaded = {}  # module path -> source: the server's models module and what it imports


def preload(frame):
    # the last check's models module (and what it imports), its validators built lazily,
    # imported while the build renders; kept only if the frame that follows sends the same
    register(frame["files"])
    pydantic.BaseModel.model_config["defer_build"] = True
    try:
        importlib.import_module(frame["module"])
    except Exception:  # left to the check itself, from the build's own sources
        unload(frame["files"])
    else:  # what was imported is kept (compared with the build's sources); the rest let go
        for path, source in frame["files"].items():
            if name_of(path) in sys.modules:
                preloaded[path] = source
        unload({path: None for path in frame["files"] if path not in preloaded})
    finally:
        pydantic.BaseModel.model_config["defer_build"] = False


def name_of(path):
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unload(payload):
    for path in payload:
        name = name_of(path)
        sys.modules.pop(name, None)
        modules.pop(name, None)
        sources.pop(path, None)


def load(package_name, payload, only=None, defer=None, moved=()):
    if preloaded and (not defer or set(moved) & set(preloaded)):
        unload(preloaded)
        preloaded.clear()
    register({path: text for path, text in payload.items() if path not in preloaded})
    names = sorted(
        name for name in modules
        if (name == package_name or name.startswith(package_name + "."))
        and name.rsplit(".", 1)[-1] != "testing"  # the client's pytest plugin: optional
        and (only is None or name in only)
    )
    if defer:  # proven by the last check, from the same sources: its validators built lazily
        pydantic.BaseModel.model_config["defer_build"] = True
        importlib.import_module(defer)
        pydantic.BaseModel.model_config["defer_build"] = False
    for name in names:
        importlib.import_module(name)
    return names


def context(op):
    async def dependency():
        return None
    return dependency


def check_server(package_name, names, mount=None):
    app = FastAPI()
    if mount is None:  # every route, as create_api_router combines them
        routers = importlib.import_module(package_name + ".routers")
        parameters = inspect.signature(routers.create_api_router).parameters
        tags = [p for p in parameters if p != "context"]
        router = routers.create_api_router(context=context, **{t: object() for t in tags})
        app.include_router(router)
        mounted = len(router.routes)
    else:  # the routers of these tag modules only (the others: proven unchanged)
        mounted = 0
        for name in mount:
            router = importlib.import_module(name).create_router(object(), context)
            app.include_router(router)
            mounted += len(router.routes)
    return f"{sum(n != package_name for n in names)} modules imported, {mounted} routes mounted"


def check_client(package_name, names):
    resolved = 0
    for name in names:
        module = sys.modules[name]
        for value in list(vars(module).values()):
            if (
                isinstance(value, type)
                and issubclass(value, pydantic.BaseModel)
                and value.__module__ == name
            ):
                try:
                    typing.get_type_hints(value, include_extras=True)
                except Exception as exc:  # one line naming the module and the class
                    print(f'  File "{module.__file__}", class {value.__name__}', file=sys.stderr)
                    print(f"{type(exc).__name__}: {exc} (an annotation of {value.__name__})",
                          file=sys.stderr, flush=True)
                    os._exit(1)
                resolved += 1
    return f"{sum(n != package_name for n in names)} modules imported, {resolved} model classes resolved"


if len(sys.argv) > 3 and sys.argv[3] == "preload":
    frame = receive()
    if frame is None:
        os._exit(0)
    preload(frame)
for role in roles:
    frame = receive()
    if frame is None:  # the build stopped before there was anything to check
        os._exit(0)
    if frame == "proven":  # the same sources as the last build's passing check
        print(f"{role}: unchanged since the last check", flush=True)
        continue
    if role == "client":
        # built (and so checked) by the server's probe: here only imported and resolved
        pydantic.BaseModel.model_config["defer_build"] = True
    names = load(
        packages[role], frame["files"], frame.get("only"), frame.get("defer"), frame.get("moved", ())
    )
    if role == "server":
        built = [getattr(sys.modules[frame["defer"]], n) for n in frame.get("build") or ()]
        for cls in built:  # changed since the last check, or naming one that did
            if isinstance(cls, type) and issubclass(cls, pydantic.BaseModel):
                cls.model_rebuild(force=True)
        said = check_server(packages[role], names, frame.get("mount"))
        if built:
            said += f" ({len(built)} model classes built)"
        if preloaded:
            said += f" ({len(preloaded)} of them imported while the build rendered)"
    else:
        said = check_client(packages[role], names)
    print(f"{role}: {said}", flush=True)
os._exit(0)  # the interpreter's teardown is not part of the check
"""
