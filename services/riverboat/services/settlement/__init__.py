"""The settlement service: wallets, buy-ins and cash-outs, the double-entry ledger, the rake.

Run it with ``python -m riverboat.services.settlement`` or ``riverboat settlement serve``; the
design and operations guide is ``docs/settlement-service.md``. Modules: :mod:`.config`
(settings), :mod:`.wallets` (wallet commands over the wallet logs), :mod:`.database` (the ledger
off the event loop), :mod:`.consumers` (durable JetStream consumers), :mod:`.projector` (log
records -> wallet reactions and ledger postings), :mod:`.service` (the RPCs), :mod:`.server`
(process wiring), :mod:`.rebuild` (replaying the logs into a fresh ledger).
"""
