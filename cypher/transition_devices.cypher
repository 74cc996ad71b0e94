// transition_devices: the devices that observed each transition leaving an app's screens.
MATCH (s:Screen {package: $package})-[t:TRANSITION]->()
RETURN t.key AS key, t.devices AS devices
