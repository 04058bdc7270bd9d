from svc.cli.main import main

main()
