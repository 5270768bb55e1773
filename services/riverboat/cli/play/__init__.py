"""``riverboat play``: sit down at a table and play from a terminal.

Line-oriented on purpose (a prompt, short commands, the table drawn with Rich after each
change), so a person can play it and a script or a pseudo-terminal test can drive it. While it
waits for a command it watches the table (``TableService.Watch``) and prints what happens.

Log in (or register), list tables, buy in with ``j <table> <buy-in>``, act with ``c``/``b``/
``r``/``f``/``i``/``k`` and, in the dealer's choice games, ``g``/``d``/``p``/``o``/``x``/
``take``/``stand``/``m``/``dec`` (or ``a ACTION ...``), leave with ``l``; ``h`` lists every
command. Money is typed in dollars (``40``, ``12.50``) or in cents with a trailing ``c``
(``1250c``).

Table calls go to ``--table`` until the lobby names a table's owner (its records'
``owner_address``); an instance that does not own the table answers NOT_OWNER and the call is
sent once more to the owner it names (:class:`riverboat.client.TableClient`).

What lives where (each module imports only those above it; only ``reader`` and ``session`` do
I/O):

* ``text``: the shared words: cards (``A♥``, hidden ``░░``), games, streets, phases, stakes,
  seats, and the viewer's legal actions as the player reads them (:func:`~.text.choices`).
* ``commands``: typed commands checked against the view's legal moves (``choose_action``,
  ``choose_move``, the card, game and declaration parsers, ``ActionError``) and the ``h`` list.
* ``render``: the Rich drawings: the table panel and its turn line, the lobby's tables, the
  dealer's games, the help.
* ``clock``: the action clock counted down from the views as they come (:class:`~.clock.TurnClock`,
  the time passed in).
* ``checks``: what the screen says of the player's own card checks: once a hand that they
  verified, every failure loudly (:class:`~.checks.CheckNotes`).
* ``narrate``: the :class:`~.narrate.Narrator`, sentences for each watch update's events. The
  words it shares with the hand text and the hand-history exports (the betting verbs, stud's
  streets, pot labels, hidden cards) live once in :mod:`riverboat.handtext`.
* ``reader``: standard input read without blocking the event loop (:class:`~.reader.LineReader`).
* ``session``: the ``play`` command (``register``, ``cmd_play``) and the
  :class:`~.session.PlaySession` loop with its calls.

Everything reads the protobuf messages of ``riverboat.v1`` directly: this is the view a
third-party client gets, nothing more (no hidden card ever reaches it).
"""
