from teamtui.cli import main

raise SystemExit(main())
