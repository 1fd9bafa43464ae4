
c
_
k"gfx942.hsacoÂ>"	ELF-host:elsewhere.soÂ>+
hipgfx942"ELF-carried:gfx942.hsaco