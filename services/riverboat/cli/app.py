"""Argument parsing and dispatch for the ``riverboat`` command."""

from __future__ import annotations

import argparse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="riverboat", description="Riverboat card room")
    parser.add_subparsers(dest="group", required=True)
    return parser


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    del args
    return 0
