"""The five-dice rulebooks' advisor (``yams``, ``yahtzee``): the exact optimal solitaire
strategy, solved by backward induction over turn-start states, and the player using it."""
