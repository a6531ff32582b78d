"""Every ORM model module, imported once so Alembic and the tests see the whole schema.

Importing a package's ``models.py`` puts its tables on :data:`Base`'s metadata;
:data:`MODEL_MODULES` names each such module (``tests/test_migrations.py`` checks it against
the ``app/*/models.py`` files on disk), so a package cannot be left out of the schema.
"""

from types import ModuleType

from app.accounts import models as accounts
from app.campaigns import models as campaigns
from app.characters import models as characters
from app.db import Base
from app.encounters import models as encounters
from app.events import models as events
from app.idempotency import models as idempotency
from app.knowledge import models as knowledge
from app.maps import models as maps
from app.sessions import models as sessions
from app.talk import models as talk
from app.transfer import models as transfer
from app.webhooks import models as webhooks

MODEL_MODULES: tuple[ModuleType, ...] = (
    accounts,
    campaigns,
    characters,
    encounters,
    events,
    idempotency,
    knowledge,
    maps,
    sessions,
    talk,
    transfer,
    webhooks,
)

__all__ = ["MODEL_MODULES", "Base"]
