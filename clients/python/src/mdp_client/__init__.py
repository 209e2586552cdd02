"""Client of the Indian market-data API (distribution ``mdp-client``, import ``mdp_client``).

    from mdp_client import Client
    client = Client()  # token from MDP_TOKEN, address from MDP_BASE_URL or http://localhost:8080
    quote = client.get_stock_quote("ARAVALIHOU").data

Standard library only; pandas, when installed, for the ``*_frame`` methods.
"""

from .client import DEFAULT_BASE_URL, VERSION, Attempt, CallOptions, Client, Result
from .errors import MdpError, ParameterError
from .frames import PANDAS_MISSING, records_frame
from .pacer import Pacer
from .rate_limit import RateLimit

__version__ = VERSION
__all__ = [
    "Attempt",
    "CallOptions",
    "Client",
    "DEFAULT_BASE_URL",
    "MdpError",
    "PANDAS_MISSING",
    "Pacer",
    "ParameterError",
    "RateLimit",
    "Result",
    "records_frame",
]
