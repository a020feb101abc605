# blkpair.awk -- a deliberately simple second pairing of blkparse text,
# for tests/blktrace.test: a request is known by device and start sector
# from its Q; a back merge (M) folds the bio away, a front merge (F) moves
# the request's start to the bio's; a C of a known request completes it.
# Prints: completed requests, their bytes, reads, requests left over.
$1 ~ /,/ && $6 == "Q" && $9 == "+" {q[$1 " " $8] = 1}
$1 ~ /,/ && $6 == "M" && $9 == "+" {delete q[$1 " " $8]}
$1 ~ /,/ && $6 == "F" && $9 == "+" {delete q[$1 " " ($8 + $10)]}
$1 ~ /,/ && $6 == "C" && $9 == "+" && ($1 " " $8) in q {
    n++; s += $10 * 512; if ($7 ~ /R/) r++; delete q[$1 " " $8]
}
END {left = 0; for (k in q) left++; printf "%d %d %d %d\n", n, s, r, left}
