from aiagent.frontends.cli import main

main()
