"""The lobby service: accounts and logins, the list of tables, buying in and leaving."""
