"""appmem's one exception tree. Every error a user can cause or meet names what is wrong."""


class AppmemError(Exception):
    """Base of every error appmem raises on purpose."""


class ConfigError(AppmemError):
    """A setting is missing or invalid."""


class StackError(AppmemError):
    """An embedded service could not be started, stopped or reached."""


class InputFormatError(AppmemError):
    """A trace, recording or request is malformed; the message names the file and the problem."""

    def __init__(self, source: str, problem: str):
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


class SummaryError(AppmemError):
    """A screen could not be summarised; the message names the screen. The run goes on without it."""


class GraphError(AppmemError):
    """The graph store refused or failed a write or query."""


class TransientError(AppmemError):
    """A failure worth retrying (a lost connection, a lease conflict); retries are bounded."""


class DeviceError(AppmemError):
    """A device did not answer or answered nonsense."""


class LeaseError(TransientError):
    """No device could be leased, or a lease was lost."""
