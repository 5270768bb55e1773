"""The table service: players act over gRPC; every accepted command is one message in the
table's JetStream log, and a table's state is rebuilt by replaying that log."""
