#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# kill -9 under load: `echelon serve` is killed at random moments while a
# client creates and deletes Jobs, CRASH_ROUNDS times (20), and restarted
# over the same --data each time. Then:
#   - every answered create is there, every answered delete is gone (or
#     being deleted): an answer comes only after the group commit;
#   - resourceVersions never go back across restarts, and a watch from
#     the first round's resourceVersion sees every answered create;
#   - no gang is partly bound: a Job's pods are all bound or none;
#   - the ClusterQueue's reserved and used GPUs equal the sum over its
#     admitted Workloads, within its quota.
# CRASH_SEED replays the same delays.
. "$(dirname "$0")/lib/common.sh"
export LC_ALL=C

command -v curl >/dev/null 2>&1 || skip "no curl"
command -v jq >/dev/null 2>&1 || skip "no jq"
rounds=${CRASH_ROUNDS:-20}
seed=${CRASH_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
tmp=$TMP
writer=""
# shellcheck disable=SC2086
trap '[ -n "$writer" ] && kill $writer 2>/dev/null; cleanup' EXIT INT TERM
echo "crash.sh: seed $seed (CRASH_SEED=$seed replays the delays)"

cat >"$tmp/queues.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: crash}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: crash}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: tas-gpu
      resources:
      - {name: cpu, nominalQuota: "1000"}
      - {name: memory, nominalQuota: 100Ti}
      - {name: nvidia.com/gpu, nominalQuota: "48"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: crash, name: crash}
spec: {clusterQueue: crash}
EOF

# Two 8-GPU pods per Job, parallelism 2: a gang of 2.
job() {
	printf '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"%s","namespace":"crash","labels":{"kueue.x-k8s.io/queue-name":"crash"}},"spec":{"parallelism":2,"completions":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"registry.example.com/t:1","resources":{"requests":{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"8"},"limits":{"nvidia.com/gpu":"8"}}}]}}}}' "$1"
}

start() {
	start_serve --cluster racks=2,hosts=4 -f "$tmp/queues.yaml"
	url=$URL
}

# Create and delete Jobs until the daemon goes away; record what was
# answered.
write() { # name prefix
	n=0
	while :; do
		name=job-$1-$n
		code=$(job "$name" | curl -s -o /dev/null -w '%{http_code}' \
			--max-time 5 -H 'Content-Type: application/json' \
			--data-binary @- "$url/apis/batch/v1/namespaces/crash/jobs")
		case $code in
		201) echo "$name" >>"$tmp/created" ;;
		000) return ;;
		*) echo "create $name: status $code" >>"$tmp/errors" ;;
		esac
		# Every third Job deletes the one created two before.
		if [ $((n % 3)) = 2 ]; then
			old=job-$1-$((n - 2))
			# Unanswered, a delete may or may not have happened.
			echo "$old" >>"$tmp/tried"
			code=$(curl -s -o /dev/null -w '%{http_code}' \
				--max-time 5 -X DELETE \
				"$url/apis/batch/v1/namespaces/crash/jobs/$old?propagationPolicy=Background")
			case $code in
			200 | 202) echo "$old" >>"$tmp/deleted" ;;
			000) return ;;
			404) ;; # its create was never answered
			*) echo "delete $old: status $code" >>"$tmp/errors" ;;
			esac
		fi
		n=$((n + 1))
	done
}

list_rv() {
	curl -sf "$url/apis/batch/v1/namespaces/crash/jobs?limit=1" |
		jq -r '.metadata.resourceVersion'
}

touch "$tmp/created" "$tmp/deleted" "$tmp/tried"
last_rv=0
t0=$(date +%s)
r=0
while [ $r -lt "$rounds" ]; do
	start
	rv=$(list_rv)
	[ "$rv" -ge "$last_rv" ] || fail "round $r: resourceVersion $rv after $last_rv"
	last_rv=$rv
	echo "$r $rv" >>"$tmp/round_rv"
	# Two clients, so a kill often finds several writes held for one
	# commit.
	write "$r-a" &
	writer=$!
	write "$r-b" &
	writer="$writer $!"
	# Every fifth kill comes right after the start (restore, first flush).
	delay=$(awk -v s="$seed" -v r="$r" 'BEGIN { srand(s * 1000 + r);
		printf "%.3f", r % 5 == 4 ? 0 : 0.05 + rand() * 0.6 }')
	sleep "$delay"
	kill -9 "$SERVE_PID"
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=""
	# shellcheck disable=SC2086
	wait $writer
	writer=""
	r=$((r + 1))
done
[ -s "$tmp/errors" ] && fail "refused writes: $(head -n 5 "$tmp/errors")"

start
rv=$(list_rv)
[ "$rv" -ge "$last_rv" ] || fail "resourceVersion $rv after $last_rv"
# A watch from before the restarts resumes from the kept history (the
# database keeps the last 10,000 changes, SERVE_DB_HISTORY): from the
# earliest round that started within 9,000 changes of now, it sees every
# create answered since, and no 410; from well beyond the kept history
# (a slow, loaded run writes more), it gets 410 Expired, as Kubernetes
# answers.
from=$(awk -v now="$rv" 'now - $2 < 9000 { print $1; exit }' "$tmp/round_rv")
[ -n "$from" ] || fail "no round started within the kept history: $(cat "$tmp/round_rv")"
from_rv=$(awk -v r="$from" '$1 == r { print $2 }' "$tmp/round_rv")
watch_from() { # rv
	curl -s --max-time 5 \
		"$url/apis/batch/v1/namespaces/crash/jobs?watch=true&resourceVersion=$1&timeoutSeconds=1"
}
watch_from "$from_rv" >"$tmp/watch.jsonl"
! grep -q '"type":"ERROR"' "$tmp/watch.jsonl" ||
	fail "a watch from rv $from_rv: $(head -c 300 "$tmp/watch.jsonl")"
jq -r 'select(.type == "ADDED") | .object.metadata.name' "$tmp/watch.jsonl" |
	sort -u >"$tmp/watched"
lost=$(awk -F- -v r="$from" '$2 >= r' "$tmp/created" | sort -u |
	comm -23 - "$tmp/watched" | head -n 5)
[ -z "$lost" ] || fail "a watch from rv $from_rv misses the creates of $lost"
first_rv=$(head -n 1 "$tmp/round_rv" | cut -d' ' -f2)
if [ $((rv - first_rv)) -gt 11000 ]; then
	watch_from "$first_rv" | grep -q '"code":410' ||
		fail "a watch from rv $first_rv, beyond the kept history, is not 410"
fi
# Let the controllers finish what the last kill interrupted.
sleep 1

curl -sf "$url/apis/batch/v1/namespaces/crash/jobs" >"$tmp/jobs.json" ||
	fail "cannot list Jobs"
curl -sf "$url/api/v1/namespaces/crash/pods" >"$tmp/pods.json" ||
	fail "cannot list pods"
curl -sf "$url/apis/kueue.x-k8s.io/v1beta2/namespaces/crash/workloads" \
	>"$tmp/workloads.json" || fail "cannot list Workloads"
curl -sf "$url/apis/kueue.x-k8s.io/v1beta2/clusterqueues/crash" \
	>"$tmp/cq.json" || fail "cannot get the ClusterQueue"

# Answered creates present (unless deleted after), answered deletes gone.
jq -r '.items[] | select(.metadata.deletionTimestamp == null) | .metadata.name' \
	"$tmp/jobs.json" | sort >"$tmp/present"
sort -u "$tmp/deleted" >"$tmp/deleted.s"
sort -u "$tmp/tried" >"$tmp/tried.s"
sort -u "$tmp/created" | comm -23 - "$tmp/tried.s" >"$tmp/want"
missing=$(comm -23 "$tmp/want" "$tmp/present" | head -n 5)
[ -z "$missing" ] || fail "answered creates lost: $missing"
back=$(comm -12 "$tmp/deleted.s" "$tmp/present" | head -n 5)
[ -z "$back" ] || fail "answered deletes undone: $back"

# Gangs: per Job, bound pods are 0 or all of its pods (parallelism 2).
partial=$(jq -r '[.items[] | select(.metadata.deletionTimestamp == null)
	| {job: (.metadata.labels["batch.kubernetes.io/job-name"] // .metadata.labels["job-name"]),
	   bound: ((.spec.nodeName // "") != "")}]
	| group_by(.job)[] | select((map(select(.bound)) | length) as $b
		| $b != 0 and $b != 2) | .[0].job' "$tmp/pods.json" | head -n 5)
[ -z "$partial" ] || fail "gangs partly bound: $partial"

# Quota: GPUs reserved and used by the ClusterQueue = sum over admitted
# Workloads (status.admission set).
admitted=$(jq '[.items[] | select(.status.admission != null)
	| .status.admission.podSetAssignments[]
	| (.resourceUsage["nvidia.com/gpu"] // "0" | tonumber)] | add // 0' \
	"$tmp/workloads.json")
for field in flavorsReservation flavorsUsage; do
	got=$(jq --arg f "$field" '[.status[$f][]?.resources[]?
		| select(.name == "nvidia.com/gpu") | .total | tonumber] | add // 0' \
		"$tmp/cq.json")
	[ "$got" = "$admitted" ] ||
		fail "ClusterQueue $field: $got GPUs, admitted Workloads use $admitted"
done
[ "$admitted" -le 48 ] || fail "admitted $admitted GPUs over the quota of 48"
# Without admissions the gang and quota checks would prove nothing.
[ "$admitted" -gt 0 ] || fail "no Workload was admitted"
bound=$(jq '[.items[] | select((.spec.nodeName // "") != "")] | length' \
	"$tmp/pods.json")

created=$(wc -l <"$tmp/created")
deleted=$(wc -l <"$tmp/deleted")
echo "ok: $rounds kills in $(($(date +%s) - t0)) s; $created creates and" \
	"$deleted deletes answered, all kept; $admitted GPUs admitted and" \
	"$bound pods bound, quota and gangs consistent"
