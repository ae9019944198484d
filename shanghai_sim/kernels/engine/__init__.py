"""The game engine as a phase machine over the state tuple G (docs/rules.md §3-§5): the state
and its event log (``state``), the table's melds (``table``), going down and laying off
(``godown``), a seat's turn (``turn``), the hand's flow between decisions (``flow``), the
legal actions and applying one (``play``), and a hand's deficiency through the memo
(``handmemo``). It chooses nothing: bots and Python code choose the actions. May import:
``base/``, ``compile/`` and ``melds/``.
"""
