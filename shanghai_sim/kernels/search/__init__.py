"""The search bot: playouts from sampled worlds on the engine, with the bots as its policy
(``rollout``), and the evaluator the analyses ask at one decision (``evaluate``). May import:
``base/``, ``compile/``, ``melds/``, ``engine/`` and ``bots/``.
"""
