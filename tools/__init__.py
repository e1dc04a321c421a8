"""Offline tools: what the service ships as data, and the commands that rebuild it."""
