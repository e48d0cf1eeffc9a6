"""The ``train`` command's help text, apart from :mod:`simlib.training.train_command` so that
``python -m simlib --help`` lists the command without importing the training stack
(:func:`simlib.cli.build_parser`)."""

#: One line in ``python -m simlib --help``.
HELP = "train with one synchronization system on the simulated cluster (002 Table 1) and print its time to accuracy"
#: ``python -m simlib train --help``'s description.
DESCRIPTION = ("Simulate n workers (workers 0..hl-1 hl times slower) under one synchronization system for up "
               "to --duration seconds, replay the schedule through minibatch SGD on a real learning task, and print "
               "the target used, the time to it, the updates to it, the time per update and the final accuracy.")
