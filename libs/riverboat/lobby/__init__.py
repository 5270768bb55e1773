"""The lobby's state: accounts, the tables it opened, and buy-ins in progress (pure).

The lobby service stores one ``riverboat.v1.LobbyEvent`` per command in stream RB_LOBBY; this
package folds them and holds the rules (names, templates, buy-in limits).
"""
