// planner_crowd_view_screens: a tenant's view's look-alikes in one read (agent/crowd.py): the rows of
// planner_crowd_screens (found by the public's titles), then those of planner_crowd_layer_screens (the screens
// its own keys title otherwise), each part in its own order. No screen is in both: the first reads a screen
// whose title as its reader reads it is the public's, the second one whose title is its own tenant's, other
// than the public's. The public's view reads planner_crowd_screens alone.
include(planner_crowd_screens)
UNION ALL
include(planner_crowd_layer_screens)
