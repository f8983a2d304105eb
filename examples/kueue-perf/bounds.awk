# Lower bounds on the makespan of a JSONL trace under a total quota, in
# exact integer arithmetic (times in microseconds, cpu in millicores; every
# product stays below 2^53, so awk's doubles hold it exactly).
#
#   awk -v quota=600 -f examples/kueue-perf/bounds.awk TRACE.jsonl
#
# quota: the cpu that all ClusterQueues together may hold at once (the sum
# of their nominal quotas). Reads "submit_s", "duration_s", "pods" (default
# 1), "requests" "cpu" and "class" of every job; '#' and blank lines are
# skipped. The makespan runs from time 0 to the end of the last job.

function us(s,    i, f) { # decimal seconds -> integer microseconds
	if (s !~ /^[0-9]+(\.[0-9]+)?$/)
		die("unsupported number of seconds " s)
	i = s; f = ""
	if (index(s, ".")) {
		i = substr(s, 1, index(s, ".") - 1)
		f = substr(s, index(s, ".") + 1)
	}
	if (length(f) > 6)
		die("more than six decimals in " s)
	while (length(f) < 6)
		f = f "0"
	return i * 1000000 + f
}
function milli(q) { # cpu quantity -> integer millicores
	if (q ~ /^[0-9]+m$/)
		return substr(q, 1, length(q) - 1) + 0
	if (q ~ /^[0-9]+$/)
		return q * 1000
	return us(q) / 1000 # decimal cpu, at most three decimals
}
function sec(u,    s) { # integer microseconds -> decimal seconds
	s = sprintf("%d.%06d", int(u / 1000000), u % 1000000)
	sub(/0+$/, "", s)
	sub(/\.$/, "", s)
	return s
}
function field(name,    v) { # the value of "name": in the current line
	if (!match($0, "\"" name "\":(\"[^\"]*\"|[0-9.]+)"))
		return ""
	v = substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 3)
	gsub(/"/, "", v)
	return v
}
function die(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}
function ceildiv(a, b) {
	return (a % b == 0) ? a / b : (a - a % b) / b + 1
}

/^[ \t]*(#|$)/ { next }
{
	s = us(field("submit_s")); d = us(field("duration_s"))
	p = field("pods"); if (p == "") p = 1
	c = field("cpu"); if (c == "") die("no cpu request")
	w = p * milli(c) * d # millicore-microseconds
	k = field("class"); if (k == "") k = "-"
	n++
	work += w
	cw[k] += w; cn[k]++
	if (!(k in seen)) { seen[k] = 1; classes[++nclasses] = k }
	if (!(s in at)) { times[++ntimes] = s; at[s] = 0 }
	at[s] += w
	if (n == 1 || s < first) first = s
	if (n == 1 || s > last) last = s
	if (n == 1 || d < shortest) shortest = d
	if (s + d > latest_end) latest_end = s + d
}
END {
	if (failed)
		exit 1
	if (quota == "" || quota <= 0) {
		print "set -v quota=CPU" > "/dev/stderr"
		exit 1
	}
	q = quota * 1000
	# Sort the distinct submission times (insertion sort; a few hundred).
	for (i = 2; i <= ntimes; i++) {
		v = times[i]
		for (j = i - 1; j >= 1 && times[j] > v; j--)
			times[j + 1] = times[j]
		times[j + 1] = v
	}
	# Nothing submitted at or after t can run before t, and it needs its
	# work / quota of time at full quota: makespan >= t + W(>= t) / quota.
	after = 0; best = -1
	for (i = ntimes; i >= 1; i--) {
		after += at[times[i]]
		b = times[i] + ceildiv(after, q)
		if (b >= best) { best = b; best_t = times[i] }
	}
	printf "jobs                                     %d\n", n
	printf "work (sum of pods x cpu x runtime)       %s cpu*s", sec(work / 1000)
	sep = " ("
	for (i = 1; i <= nclasses; i++) {
		k = classes[i]
		printf "%s%s %d jobs %s", sep, k, cn[k], sec(cw[k] / 1000)
		sep = ", "
	}
	print ")"
	printf "quota                                    %s cpu\n", quota
	printf "work / quota                             %s s%s\n", sec(ceildiv(work, q)), (work % q ? " (rounded up)" : "")
	printf "first / last submission                  %s s / %s s\n", sec(first), sec(last)
	printf "last submission + shortest runtime       %s s\n", sec(last + shortest)
	printf "latest submission + its runtime          %s s\n", sec(latest_end)
	printf "max over t of t + work(>= t) / quota     %s s (t = %s s)\n", sec(best), sec(best_t)
	if (latest_end > best) best = latest_end
	printf "lower bound on makespan                  %s s\n", sec(best)
}
