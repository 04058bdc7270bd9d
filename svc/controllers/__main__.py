from svc.controllers.main import main

main()
