"""Screen formats and privacy scrubbing, under graph/: uiautomator XML and AutoDroid HTML read into
`UIState` view trees, and the scrubber that takes personal data out of them before anything stores them."""
