"""The vocabulary every kernel shares: the arrays' layout (``layout``: the rules tuple R, the
state tuple G, the workspace W, by named index), the record layout the runner reads
(``records``), every code the kernels and Python share (``codes``: phases, actions and their
bit layout, events, refusals, searched decisions, hand endings, buy policies) and the random
streams (``rng``). May import: nothing outside ``base/``.
"""
