"""One module per rule system behind :class:`protocol.CharacterCore` and its capabilities
(``hh``, ``ds4``, ``pf2e``), looked up with :func:`registry.character_system`. See
``docs/characters.md``."""
