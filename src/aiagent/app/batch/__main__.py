"""``python -m aiagent.app.batch``: a batch worker process (see :mod:`.worker`)."""

from aiagent.app.batch.worker import main

main()
