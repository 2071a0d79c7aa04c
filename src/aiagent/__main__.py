from aiagent.cli import main

main()
