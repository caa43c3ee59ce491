// wmpio (1.30), 26.10.2021

version 711


{ //level
	0
	map.$$w
	palette.pcx
}
{ //sun
	5
00000
	-100
}
{ //start
	1
	-8909 928 -3312
	90 0 0
	pos_000
}
{ //model
	7
	-1280 0 -4160
	360 0 0
	1 1 1
	geoStartLeft.mdl
	geoStartLeft
	geoModelSetup
	0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
	00000000000000100000001000000000
	0
	75
	0
	0
	geoWLeaves_mat
}{
 //model
	3
	-3584 0 -3712
	360 0 0
	1 1 1
	mycube.mdl
	spawn
	ndef
	0 #  This f.000 0.000l0000
	0
}
