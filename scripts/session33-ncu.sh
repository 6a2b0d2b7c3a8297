out=$OUT; mkdir -p $out
xz -d -c .prebuilt/new-bench.xz > /tmp/bench && chmod +x /tmp/bench
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib
/tmp/bench --preset=probe --benchmark_list_tests 2>&1 | grep -E "1000003x(24|12)/|24x1000003/" > $out/list.txt
head -60 $out/list.txt
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,lts__t_sectors_op_read.sum,smsp__sass_inst_executed_op_global_st.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
for f in "^smem_flat/e4/skinny/1000003x24/" "^smem_flat/e1/skinny/1000003x24/" "^copy[a-z_]*/e4/skinny/1000003x24/" ; do
  echo "== $f" | tee -a $out/ncu.txt
  timeout 80 ncu --clock-control none --metrics $m -c 1 /tmp/bench --preset=probe --benchmark_filter="$f" 2>&1 | grep -E "^  [a-zA-Z_]|gpu__|dram__|sm__|smsp__|launch__|lts__|l1tex__" | tr -s ' ' | tee -a $out/ncu.txt
done
