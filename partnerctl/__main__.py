from partnerctl.cli import main

raise SystemExit(main())
