import sys

from device_flows.demo.serve import main

sys.exit(main())
