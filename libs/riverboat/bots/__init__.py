"""Simple bots that choose legal actions: for demos, soak runs and tests."""

from riverboat.bots.policy import BotPolicy, CallingStation, RandomBot, TightBot

__all__ = ["BotPolicy", "CallingStation", "RandomBot", "TightBot"]
