#!/bin/bash
# A B A B A B: the same 20 episodes (ten tasks x seeds 0-1, oracle, camera perception) through the
# process pool and through a local Ray, two workers each; wall clock of the whole command.
cd "$(git rev-parse --show-toplevel)"

mkdir -p ${OUT:-ray-ab10}
for rep in 1 2 3; do
  for engine in pool ray; do
    out=${OUT:-ray-ab10}/$engine-$rep
    rm -rf $out
    t0=$(date +%s.%N)
    owl-bt bench --engine $engine --method oracle --tasks all --seeds 2 --jobs 2 --out $out -q > $out.log 2>&1
    t1=$(date +%s.%N)
    echo "$engine $rep $(python3 -c "print(round($t1-$t0,1))") s load $(cut -d' ' -f1 /proc/loadavg) $(tail -1 $out.log)"
  done
done
