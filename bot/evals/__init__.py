"""Inspect AI for Benchboard (the ``inspect`` extra): task definitions that run a model
on a benchmark with its official prompt and files (:mod:`bot.evals.tasks`), and the
reading of Inspect's logs into submissions (:mod:`bot.evals.logs`). Nothing else in
``bot`` imports Inspect: the bot does not need it."""
