import ArgumentParsing
import DeviceStore
import PrivateCloud

/// Every command of `privatesync`, declared. Help text and usage errors come from here.
enum CommandTree {
    static let device = OptionSpec("device", valueName: "NAME", help: "The device.", isRequired: true)
    static let json = FlagSpec("json", help: "Print exactly one JSON object (shapes in docs/cli.md).")
    static let onOff = ["on", "off"]
    static let cloudAccount = OptionSpec("account", valueName: "ID", help: "The account.", isRequired: true)
    static let zone = OptionSpec(
        "zone", valueName: "ZONE", help: "The zone (default: the engine's zone, PrivateSyncZone).")
    static let cloudField = OptionSpec(
        "field", valueName: "KEY=VALUE", help: "A field value; KEY:TYPE=VALUE gives its type.", isRepeatable: true)

    static let home = OptionSpec(
        "home", valueName: "DIR", help: "The world's folder (default: $PRIVATESYNC_HOME, else ./.privatesync).")

    static let root = CommandSpec(
        "privatesync", abstract: "Build a world of devices and iCloud accounts, launch the app, sync, inject faults.",
        discussion: """
            Every command is a fresh process, as every launch of an app is. The world lives in --home DIR, else
            $PRIVATESYNC_HOME, else ./.privatesync. Exit codes: 0 success, 1 a check found a problem, 64 usage,
            65 bad input data, 66 a missing world, device or record, 70 internal, 74 a damaged or unreadable file.
            """,
        subcommands: [
            CommandSpec(
                "init", abstract: "Create a world, with the demo health schema unless a schema is given.",
                discussion: "Refuses to touch an existing world, or any folder that is not empty.",
                options: [
                    OptionSpec("schema", valueName: "FILE", help: "A schema file (see docs/schema.md)."),
                    OptionSpec(
                        "container", valueName: "ID", help: "The container identifier (default iCloud.com.example.me)."),
                ],
                examples: [
                    "privatesync --home /tmp/w init",
                    "privatesync init --schema my-schema.json --container iCloud.org.me.app",
                ]),
            CommandSpec(
                "device", abstract: "Install the app on devices, list them, reinstall or upgrade it.",
                subcommands: [
                    CommandSpec(
                        "add", abstract: "A fresh install of the app on a new device.",
                        arguments: [ArgumentSpec("NAME", help: "The device's name (letters, digits, '.', '_', '-').")],
                        options: [
                            OptionSpec(
                                "account", valueName: "ID", help: "The iCloud account signed in (default: none)."),
                            OptionSpec(
                                "sync", valueName: "on|off",
                                help: "The sync switch as restored from a backup (default: never set).",
                                allowedValues: onOff),
                        ],
                        flags: [FlagSpec("no-entitlement", help: "Build the app without the iCloud entitlement.")],
                        examples: ["privatesync device add phone --account alice --sync on"]),
                    CommandSpec("list", abstract: "List the devices.", flags: [json]),
                    CommandSpec(
                        "reinstall", abstract: "Delete and reinstall the app: its folder goes back to a fresh install.",
                        arguments: [ArgumentSpec("NAME", help: "The device.")],
                        options: [
                            OptionSpec(
                                "sync", valueName: "on|off", help: "The sync switch as restored from a backup.",
                                allowedValues: onOff)
                        ]),
                    CommandSpec(
                        "upgrade", abstract: "Install a newer build over the app, keeping its folder and data.",
                        arguments: [ArgumentSpec("NAME", help: "The device.")],
                        options: [
                            OptionSpec(
                                "entitlement", valueName: "on|off",
                                help: "Whether the new build has the iCloud entitlement (default: as before).",
                                allowedValues: onOff)
                        ]),
                ]),
            CommandSpec(
                "account", abstract: "Sign a device in or out of iCloud, set its account status, resolve a switch.",
                subcommands: [
                    CommandSpec(
                        "sign-in",
                        abstract: "Sign the device into an iCloud account (switching if another is signed in).",
                        arguments: [ArgumentSpec("ID", help: "The account.")], options: [device]),
                    CommandSpec("sign-out", abstract: "Sign the device out of iCloud.", options: [device]),
                    CommandSpec(
                        "status", abstract: "Set (or show) the signed-in account's status.",
                        options: [
                            device,
                            OptionSpec(
                                "set", valueName: "STATUS", help: "The new status.",
                                allowedValues: ["available", "noAccount", "restricted", "temporarilyUnavailable"]),
                        ], flags: [json]),
                    CommandSpec(
                        "start-fresh",
                        abstract:
                            "After an account switch: keep the old account's data apart and sync with the new one.",
                        discussion:
                            "Moves the previous account's records into an archive store on the device (nothing is deleted), and lets the device sync with the account signed in now.",
                        options: [device]),
                ]),
            CommandSpec(
                "launch", abstract: "A cold start of the app: runs the launch sequence and prints the status.",
                discussion:
                    "The two skip flags exist only to reproduce the first-launch traps (docs/trap-missing-directory.md, docs/trap-missing-entitlement.md). Without the entitlement and with --skip-entitlement-check, the process traps (dies by SIGTRAP) as CloudKit does.",
                options: [device],
                flags: [
                    FlagSpec("skip-directory-fix", help: "Do not create Library/Application Support first (trap 1)."),
                    FlagSpec("skip-entitlement-check", help: "Do not check the entitlement before CloudKit (trap 2)."),
                    json,
                ],
                examples: [
                    "privatesync launch --device phone", "privatesync launch --device phone --skip-directory-fix",
                ]),
            CommandSpec(
                "sync", abstract: "Flip the sync switch, sync now, or show the status.",
                subcommands: [
                    CommandSpec(
                        "on", abstract: "Turn sync on, as the settings switch does.", options: [device], flags: [json]),
                    CommandSpec(
                        "off", abstract: "Turn sync off, as the settings switch does.", options: [device], flags: [json]
                    ),
                    CommandSpec(
                        "now", abstract: "One send-and-fetch cycle right away, whatever the retry schedule says.",
                        discussion:
                            "Exit 0 when the cycle finished, 75 when it failed transiently (it will be retried), 69 when sync is paused, 78 when sync is off, 74 when the container cannot be read (docs/cli.md).",
                        options: [device],
                        flags: [
                            json,
                            FlagSpec("send-only", help: "Half a cycle: send pending changes, fetch nothing."),
                            FlagSpec("fetch-only", help: "Half a cycle: fetch changes, send nothing."),
                            FlagSpec("verbose", help: "Also print every container request the cycle made."),
                        ],
                        examples: [
                            "privatesync sync now --device phone --fetch-only",
                            "privatesync sync now --device phone --json",
                        ]),
                    CommandSpec(
                        "status", abstract: "The status the settings screen shows.", options: [device], flags: [json]),
                    CommandSpec(
                        "reset",
                        abstract: "Drop the engine's bookkeeping (tokens, binding, server versions); keep the data.",
                        discussion:
                            "The next cycle fetches everything again and merges it with the device's records, without duplicating or losing any: what the server lacks is sent again.",
                        options: [device], flags: [json]),
                ]),
            CommandSpec(
                "record", abstract: "Add, edit, delete and list records on a device.",
                subcommands: [
                    CommandSpec(
                        "add",
                        abstract: "Add a record; prints its name once it and its pending change are durably stored.",
                        discussion:
                            "VALUE is read by the field's type: text; an integer; a number; true or false; a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS[.fraction] with Z or ±HH:MM, or 'now'; docs/cli.md); canonical base64 bytes; a record name (reference); 'lat,lon' (location). '@FILE' reads the value from a file ('@@' for a literal '@'). Repeat a list field's --field once per element; 'KEY=[]' gives an empty list.",
                        arguments: [ArgumentSpec("TYPE", help: "The record type.")],
                        options: [
                            device,
                            OptionSpec("field", valueName: "KEY=VALUE", help: "A field value.", isRepeatable: true),
                            OptionSpec(
                                "name", valueName: "NAME",
                                help:
                                    "The record's name, checked as CloudKit checks record names (default: a new UUID); refused if a record on the device has it."
                            ),
                            OptionSpec(
                                "count", valueName: "N",
                                help: "Add N records (1 to 10000) with these fields, each under a new name, one a line."
                            ),
                        ], flags: [json],
                        examples: [
                            "privatesync record add CheckIn --device phone --field mood=4 --field date=now",
                            "privatesync record add CheckIn --device phone --name checkin-2026-11-29 --field mood=4 --field date=now",
                        ]),
                    CommandSpec(
                        "edit", abstract: "Change fields of a record.",
                        arguments: [ArgumentSpec("NAME", help: "The record's name.")],
                        options: [
                            device,
                            OptionSpec("field", valueName: "KEY=VALUE", help: "A field value.", isRepeatable: true),
                            OptionSpec(
                                "clear", valueName: "KEY", help: "Remove an optional field.", isRepeatable: true),
                        ], flags: [json]),
                    CommandSpec(
                        "delete", abstract: "Delete a record.",
                        arguments: [ArgumentSpec("NAME", help: "The record's name.")],
                        options: [device]),
                    CommandSpec(
                        "list", abstract: "List the records on a device.",
                        options: [device, OptionSpec("type", valueName: "TYPE", help: "Only records of this type.")],
                        flags: [json]),
                ]),
            CommandSpec(
                "cloud",
                abstract: "Write into an account's container directly, as another client or app version would.",
                discussion:
                    "These commands go through the container's own semantics (change tags, zones, field types), meet no injected fault, and use the engine's zone unless --zone is given. The container is schemaless: any record type and field key CloudKit accepts may be written. A field the app's schema declares for the type is read by its type; another is inferred (true/false, an integer, a number, a date, else a string) unless typed as KEY:TYPE=VALUE (docs/cli.md).",
                subcommands: [
                    CommandSpec(
                        "record", abstract: "Put, edit, delete and list records in an account's container.",
                        subcommands: [
                            CommandSpec(
                                "put", abstract: "Create a record (and its zone, when missing); prints its name.",
                                options: [
                                    cloudAccount,
                                    OptionSpec(
                                        "type", valueName: "TYPE", help: "The record type (any CloudKit identifier).",
                                        isRequired: true),
                                    OptionSpec(
                                        "name", valueName: "NAME", help: "The record's name (default: a new UUID)."),
                                    zone, cloudField,
                                ], flags: [json],
                                examples: [
                                    "privatesync cloud record put --account alice --type CheckIn --name c1 --field mood=4 --field date=now",
                                    "privatesync cloud record put --account alice --type FutureThing --field weight:double=3",
                                ]),
                            CommandSpec(
                                "edit", abstract: "Change fields of a record in the container.",
                                discussion:
                                    "With --stale the save is based on a change tag the server no longer holds: it meets serverRecordChanged (14), which is reported, and the record is then saved over the server's with allKeys, as a client that insists on its version does.",
                                arguments: [ArgumentSpec("NAME", help: "The record's name.")],
                                options: [cloudAccount, zone, cloudField],
                                flags: [
                                    FlagSpec("stale", help: "Save from an outdated copy (an old change tag)."), json,
                                ]),
                            CommandSpec(
                                "delete", abstract: "Delete a record from the container.",
                                arguments: [ArgumentSpec("NAME", help: "The record's name.")],
                                options: [cloudAccount, zone]),
                            CommandSpec(
                                "list", abstract: "The records in the container, or in one zone.",
                                options: [cloudAccount, zone], flags: [json]),
                        ]),
                    CommandSpec(
                        "zone", abstract: "List or delete an account's zones.",
                        subcommands: [
                            CommandSpec(
                                "list", abstract: "The zones, the default zone first.", options: [cloudAccount],
                                flags: [json]),
                            CommandSpec(
                                "delete",
                                abstract:
                                    "Delete a zone and its records (reported as deleted; calls on it then fail with zoneNotFound).",
                                arguments: [ArgumentSpec("ZONE", help: "The zone.")], options: [cloudAccount]),
                        ]),
                ]),
            CommandSpec(
                "inspect",
                abstract: "Per type, records on the device and in its account's container; pending changes; files.",
                discussion:
                    "With --html FILE (and no --device): a page of the whole world instead, with every device, its stores by type, its status sentence and pending changes, and each account's container; one self-contained HTML file that loads nothing.",
                options: [
                    OptionSpec("device", valueName: "NAME", help: "The device (required unless --html)."),
                    OptionSpec("html", valueName: "FILE", help: "Write a page of the whole world to FILE."),
                ], flags: [json],
                examples: ["privatesync inspect --device phone", "privatesync inspect --html world.html"]),
            CommandSpec(
                "audit",
                abstract: "Read every container file and report local-only records and records in the wrong account.",
                discussion:
                    "Exit 0 when clean, 1 when not. With --convergence: each device's user-created records against its account's container (fields and record times); exit 1 on a difference no pending change explains.",
                flags: [
                    json,
                    FlagSpec(
                        "convergence", help: "Compare each device with its account's container instead."),
                ]),
            CommandSpec(
                "fault", abstract: "Faults that the next commands meet.",
                subcommands: [
                    CommandSpec(
                        "inject", abstract: "Add a fault.",
                        arguments: [
                            ArgumentSpec(
                                "KIND", help: "The kind of fault.", allowedValues: FaultKind.allCases.map(\.rawValue))
                        ],
                        options: [
                            OptionSpec("account", valueName: "ID", help: "Only calls for this account (default: any)."),
                            OptionSpec(
                                "device", valueName: "NAME", help: "Only calls from this device (default: any)."),
                            OptionSpec(
                                "record", valueName: "NAME",
                                help:
                                    "Only calls naming this record; the item a per-item fault fails, the change a delayed delivery withholds."
                            ),
                            OptionSpec("count", valueName: "N", help: "How many calls it strikes (default 1)."),
                            OptionSpec(
                                "after", valueName: "N",
                                help: "Let the first N calls it applies to through, then strike (default 0)."),
                            OptionSpec(
                                "retry-after", valueName: "SECONDS",
                                help: "The retry-after it carries, where one applies."),
                        ],
                        examples: [
                            "privatesync fault inject network-unavailable --count 3",
                            "privatesync fault inject partial-failure --device phone --record checkin-1",
                            "privatesync fault inject delayed-delivery --device tablet --count 2",
                        ]),
                    CommandSpec("list", abstract: "The faults waiting, and how often each kind struck.", flags: [json]),
                    CommandSpec("clear", abstract: "Remove every waiting fault."),
                ]),
            CommandSpec(
                "simulate", abstract: "Run seeded fault-injection simulations and check the invariants.",
                discussion: """
                    Each seed fixes a whole run: devices, accounts, user actions, launches, crashes, account changes, \
                    faults, then a heal phase. A failing seed prints the invariant broken, its last steps, and the \
                    command that replays it. Exit 1 when any seed fails. See docs/simulator.md.
                    """,
                options: [
                    OptionSpec("seeds", valueName: "N", help: "Run seeds 0 to N-1 (default 100)."),
                    OptionSpec("seed", valueName: "S", help: "Run one seed."),
                    OptionSpec(
                        "shard", valueName: "I/N|env",
                        help:
                            "Run only shard I (0-based) of N of the seeds; 'env' reads I and N from $PRIVATESYNC_SHARD_INDEX (or $JOB_COMPLETION_INDEX) and $PRIVATESYNC_SHARD_COUNT."
                    ),
                    OptionSpec(
                        "devices", valueName: "N", help: "Devices per run, 1 to 4 (default: drawn from the seed)."),
                    OptionSpec("steps", valueName: "N", help: "Steps per run before the heal (default 200)."),
                    OptionSpec(
                        "backend", valueName: "memory|file",
                        help: "Where the accounts' databases live (default memory).",
                        allowedValues: ["memory", "file"]),
                    OptionSpec(
                        "plant", valueName: "BUG",
                        help: "Plant a known bug in every device's stores and engine, to replay a planted-bug proof.",
                        allowedValues: PlantedBug.allCases.map(\.rawValue)),
                    OptionSpec(
                        "timeline", valueName: "PATH",
                        help:
                            "Write the timeline page: with --seed, to the file PATH; with a sweep, PATH/seed-S.html for every failing seed (PATH a folder)."
                    ),
                ],
                flags: [FlagSpec("trace", help: "Print every step of the run (with --seed)."), json],
                subcommands: [
                    CommandSpec(
                        "merge", abstract: "Merge the JSON of the shards of one sweep (simulate --shard I/N --json).",
                        discussion:
                            "Sums the shards and lists every failure with its replay command. Refuses (65) a set that is not exactly the shards of one run: a shard missing or repeated, another shard count or configuration (seeds, steps, devices, backend). Exit 1 when any seed failed.",
                        arguments: [ArgumentSpec("FILE", help: "A shard's JSON.", isVariadic: true)],
                        flags: [json],
                        examples: ["privatesync simulate merge shard-*.json"])
                ],
                examples: [
                    "privatesync simulate --seeds 1000", "privatesync simulate --seed 42 --trace",
                    "privatesync simulate --seeds 10000 --shard 3/8",
                    "privatesync simulate --seeds 1000000 --shard env --json > shard.json",
                    "privatesync simulate --seed 42 --timeline seed-42.html",
                ],
                runsWithoutSubcommand: true),
            CommandSpec(
                "demo", abstract: "A scripted walk through a fresh world: both traps, two devices syncing, a fault.",

                discussion: "Runs in a temporary folder unless --home is given (which must not exist yet)."),
        ])
}
