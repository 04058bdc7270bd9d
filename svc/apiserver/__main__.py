from svc.apiserver.main import main

main()
