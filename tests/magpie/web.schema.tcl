# web.schema.tcl -- the Magpie event schema of the simulated web server
# (tests/magpie/sim.tcl); examples/magpie uses the same one.
set webSchema {
    attribute Bytes int
    # Ids are ints: string values are interned for the whole run, so an
    # attribute with a new value per request would grow with the log.
    foreach id {Conn Task Irp Cpu Thread OldThread NewThread} {
	attribute $id int
    }
    attribute Url string
    domain Thread {Thread OldThread NewThread}

    # Context switches carry the CPU; the parser charges the time
    # between switches to the request the running thread is bound to.
    event Kernel/CSwitch -cswitch {Cpu OldThread NewThread}

    # A request begins when a worker takes it and ends with its response;
    # the worker thread is bound to it in between.
    event Http/Request  -begin -join {Conn start Thread start}
    event Http/Response -end   -join {Conn stop  Thread stop}

    # Work handed to a helper thread (concurrent or RPC-style).
    event Work/Post  -join {Thread basic Task start}
    event Work/Start -join {Task basic Thread start}
    event Work/Done  -join {Task basic Thread stop}
    event Work/Join  -join {Thread basic Task stop}

    # Disk I/O: the completion's deferred procedure call runs in an
    # interrupt-like context on some CPU, charged to the I/O's request.
    event Disk/Issue      -join {Thread basic Irp start} -disk Bytes
    event Kernel/DpcBegin -join {Irp basic} -intrbegin Cpu
    event Kernel/DpcEnd   -join {Irp stop}  -intrend Cpu

    event Net/Send -join {Thread basic} -net Bytes

    sync Work/Post Task Work/Start
    sync Work/Done Task Work/Join
    sync Disk/Issue Irp Kernel/DpcEnd
}
magpie::schema web $webSchema

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
