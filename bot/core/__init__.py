"""The bot's use cases, between its handlers and storage and scoring."""
