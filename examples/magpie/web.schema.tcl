# web.schema.tcl -- the Magpie event schema of a web server: the one
# tests/magpie/sim.tcl simulates and examples/magpie/web1.log was written
# by.  Sets webSchema (the body, which tests/magpie extends for two
# machines) and defines the schema "web".
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
