"""The dealer service: commits to each hand's deck, serves it to the table, reveals seeds.

Run it with ``python -m riverboat.services.dealer`` or ``riverboat dealer serve``; the design
and operations guide is ``docs/dealer-service.md``. Modules: :mod:`.config` (settings),
:mod:`.keys` (the sealing key and opening sealed seeds), :mod:`.store` (the dealer's JetStream
streams), :mod:`.tablelog` (checks against the table's log), :mod:`.service` (the RPCs),
:mod:`.server` (process wiring).
"""
