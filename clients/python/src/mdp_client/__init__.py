"""Client of the Indian market-data API (distribution ``mdp-client``, import ``mdp_client``).

    from mdp_client import Client
    with Client() as client:  # token from MDP_TOKEN, address from MDP_BASE_URL or http://localhost:8080
        quote = client.get_stock_quote("ARAVALIHOU").data

Standard library only; pandas, when installed, for the ``*_frame`` methods. See README.md.
"""

from .call import Attempt, CallOptions, Result
from .client import DEFAULT_BASE_URL, VERSION, Client
from .errors import (
    AuthenticationError,
    MdpError,
    NetworkError,
    NotFoundError,
    ParameterError,
    QuotaError,
    RateLimitError,
    ServerError,
)
from .frames import PANDAS_MISSING, records_frame
from .pacer import Pacer
from .rate_limit import RateLimit

__version__ = VERSION
__all__ = [
    "Attempt",
    "AuthenticationError",
    "CallOptions",
    "Client",
    "DEFAULT_BASE_URL",
    "MdpError",
    "NetworkError",
    "NotFoundError",
    "PANDAS_MISSING",
    "Pacer",
    "ParameterError",
    "QuotaError",
    "RateLimit",
    "RateLimitError",
    "Result",
    "ServerError",
    "records_frame",
]
