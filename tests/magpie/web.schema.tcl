# web.schema.tcl -- the Magpie event schemas of the simulated web server
# (tests/magpie/sim.tcl): "web", defined in examples/magpie, and "web2",
# the same with a back end.
source [file join [file dirname [info script]] .. .. examples magpie \
    web.schema.tcl]

# web2: the same server with the files of C and D on a back end
# (sim::run -backend): RPCs over connections Rpc, numbered by Seq, are
# sent on one machine and received on the other; the stitch statements
# join a request's fragments on the two machines through them.
set web2Schema $webSchema
append web2Schema {
    attribute Rpc int
    attribute Seq int
    event Rpc/Call   -join {Thread basic}
    event Rpc/Serve  -join {Thread start}
    event Rpc/Reply  -join {Thread stop}
    event Rpc/Return -join {Thread basic}
    stitch Rpc/Call  Rpc/Serve  {Rpc Seq}
    stitch Rpc/Reply Rpc/Return {Rpc Seq}
}
magpie::schema web2 $web2Schema
