"""Riverboat's gRPC services (lobby, table, dealer, settlement)."""
