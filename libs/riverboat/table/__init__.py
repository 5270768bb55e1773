"""A table as an aggregate: seats, the button, and the hand in progress; pure (no I/O).

The table's state is the fold of its events: table-level facts (``events``) and the rules
engine's hand events. ``decide`` validates table commands; ``views`` builds what each viewer
may see.
"""
