"""The most any table service on this stack could reach on this machine, from one run's costs.

The room rows say how fast Riverboat is; the transport floor (``bench/_floor.py``) and the
in-process row (``bench/_service.py``) say how fast it could be. Every action costs at least
what the bare transport costs (one gRPC ``Act``, one JetStream publish with ack, one message to
each Watch stream) plus Riverboat's own work with no transport at all (rules, encoding, views),
plus the dealer's share of each hand and the players' choosing. Adding those lowest costs as if
joining them cost nothing gives two ceilings that no cleverness in the integration can lift:

* one table-service process cannot do more actions per second than one core allows it, at the
  floor server's CPU plus the service's own work per action;
* tables sharded over several processes cannot do more than all the machine's cores allow, at
  the floor's whole-machine CPU plus the own work, the dealer and the players per action.

A target above the second ceiling is out of reach for this stack on this machine; a target
under it may be reachable, and the room rows' distance from it is Riverboat's to close.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """Per-action CPU milliseconds measured in one run (the lowest seen of each), and cores."""

    floor_server_ms: float
    """The floor server's CPU per action: the transport a table service pays."""
    floor_machine_ms: float
    """Every process of the floor (NATS, server, clients) per action."""
    own_ms: float
    """The table service's own work per action, in process with no transport."""
    choosing_ms: float
    """The players' choosing per action (what the bots do besides talking)."""
    dealer_ms: float
    """The dealer service's CPU per action in the room (its per-hand work spread over actions)."""
    cores: int

    @property
    def one_process(self) -> float:
        """Actions/s one table-service process could do on a whole core, at the least."""
        return 1000 / (self.floor_server_ms + self.own_ms)

    @property
    def machine_ms(self) -> float:
        """The least CPU the whole machine spends per action."""
        return self.floor_machine_ms + self.own_ms + self.choosing_ms + self.dealer_ms

    @property
    def machine(self) -> float:
        """Actions/s the whole machine could do with every core busy, tables sharded."""
        return 1000 * self.cores / self.machine_ms

    def own_ms_allowed(self, target: float) -> float:
        """The own work per action (service and players) that would leave ``target`` actions/s
        within reach of all cores, with the floor and the dealer as measured (negative: none)."""
        return 1000 * self.cores / target - self.floor_machine_ms - self.dealer_ms
