"""The address guard: a webhook reaches the public internet only, unless the instance allows
private addresses (``TAFELRUNDE_WEBHOOKS_ALLOW_PRIVATE``, for tests and home networks).

A URL is checked when the GM saves it and its host is resolved again before every send; the
request then goes to the address that was checked (the host name only in ``Host`` and TLS
SNI), so a DNS answer that changes between the check and the connection cannot point the
server at itself or at the network it stands in. Redirects are never followed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from app.i18n import _

MAX_URL_LENGTH = 2048
#: Hosts whose ``/api/webhooks/`` URLs get Discord's message format.
DISCORD_HOSTS = frozenset(
    {"discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"}
)


class Refused(Exception):
    """The URL or the address it resolves to may not be used; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Target:
    """A checked webhook URL, split into what a send needs."""

    scheme: str
    host: str
    port: int
    #: Path and query, as sent.
    path: str

    @property
    def kind(self) -> str:
        discord = self.host in DISCORD_HOSTS and self.path.startswith("/api/webhooks/")
        return "discord" if discord else "json"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"

    def url_at(self, address: str) -> str:
        """The URL with the checked address in place of the host name."""
        where = f"[{address}]" if ":" in address else address
        return f"{self.scheme}://{where}:{self.port}{self.path}"


def _split(url: str) -> SplitResult:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise Refused(_("This is not a valid URL.")) from None
    return parts


def parse(url: str, *, allow_private: bool) -> Target:
    """The URL as a :class:`Target`, or :class:`Refused` with the reason."""
    if len(url) > MAX_URL_LENGTH:
        raise Refused(_("At most %(count)d characters.", count=MAX_URL_LENGTH))
    parts = _split(url.strip())
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused(_("Enter a web address that starts with https://."))
    if parts.scheme == "http" and not allow_private:
        raise Refused(_("Only https addresses are allowed."))
    if parts.username or parts.password:
        raise Refused(_("The address may not contain a user name or password."))
    host = parts.hostname.lower()
    if _literal(host) is not None:
        check_address(host, allow_private=allow_private)
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return Target(parts.scheme, host, port, path)


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def check_address(address: str, *, allow_private: bool) -> None:
    """Refuse an address of this machine or of a private, link-local or reserved network."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if allow_private or (ip.is_global and not ip.is_multicast):
        return
    raise Refused(_("This address is in a private or local network and may not be used."))


#: Seconds a send waits for the receiver's name to resolve (a resolver that does not answer
#: fails the attempt, which is tried again later, instead of holding the delivery loop).
RESOLVE_SECONDS = 5.0


async def resolve(target: Target, *, allow_private: bool) -> str:
    """The address to connect to: every address the host resolves to must pass
    :func:`check_address` (one bad answer refuses the send)."""
    lookup = asyncio.get_running_loop().getaddrinfo(
        target.host, target.port, type=socket.SOCK_STREAM
    )
    try:
        infos = await asyncio.wait_for(lookup, RESOLVE_SECONDS)
    except (OSError, TimeoutError):
        raise Refused(_("The host name could not be resolved.")) from None
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise Refused(_("The host name could not be resolved."))
    for address in addresses:
        check_address(address, allow_private=allow_private)
    return addresses[0]


def masked(url: str) -> str:
    """The URL as shown after creation: scheme and host, the rest hidden but its end."""
    parts = urlsplit(url)
    tail = url[-4:] if len(url) > 24 else ""
    return f"{parts.scheme}://{parts.hostname}/…{tail}"
