"""appmem's one exception tree. Every error a user can cause or meet names what is wrong.

The class says what kind of failure it is, and that is all a caller (the API's status codes,
the CLI's exit) reads: `InvalidInput` (the request or file is wrong: 422), `NotFound` (it names
something the memory does not hold: 404), `Conflict` (it contradicts what is stored: 409),
`TransientError` (retry: 503); the rest are the deployment's or the server's failures.
"""


class AppmemError(Exception):
    """Base of every error appmem raises on purpose."""


class ConfigError(AppmemError):
    """A setting is missing or invalid, or an installed part (a model file, an endpoint) is unusable."""


class StackError(AppmemError):
    """An embedded service could not be started, stopped or reached."""


class InvalidInput(AppmemError):
    """A request, argument or file is wrong; `source` names where (a field, a file, an option), `problem` what."""

    def __init__(self, source: str, problem: str):
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


class InputFormatError(InvalidInput):
    """A trace, recording or screen dump is malformed; the message names the file and the problem."""


class NotFound(AppmemError):
    """The request names something the memory does not hold: an app, a screen, a trace, a key."""


class Conflict(AppmemError):
    """A write contradicts what is stored (a uniqueness constraint of the graph)."""


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


class Interrupted(AppmemError):
    """A run was asked to stop (SIGTERM, Ctrl-C): it ends after its current step, with what it did so far."""
