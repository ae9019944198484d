"""The search bot: playouts from sampled worlds on the engine, with the bots as its policy
(``rollout``; ``shanghai_sim.valuing`` asks its ``search_nb`` for the studies). May import:
``base/``, ``compile/``, ``melds/``, ``engine/`` and ``bots/``.
"""
