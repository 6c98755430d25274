# The window loop's gates: the scheduler and the teacher-forced loop read what the `acoustic_loop_oracle` fixture
# regenerates (oracle_bridge/acoustic_loop/); the noise and window-rule gates need no oracle.
add_library(music3_acoustic_loop_gate_lib STATIC ${CMAKE_CURRENT_LIST_DIR}/loop_oracle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loop_replay_arms.cpp)
target_link_libraries(music3_acoustic_loop_gate_lib PUBLIC music3_acoustic_loop music3_acoustic music3_io
  music3_gate_lib)
target_compile_definitions(music3_acoustic_loop_gate_lib PRIVATE
  MUSIC3_DEFAULT_ACOUSTIC_LOOP_ORACLE_DIR="${CMAKE_BINARY_DIR}/acoustic_loop_oracle")

foreach(gate loop scheduler loop_real_arms)
  set(exe gate_acoustic_${gate})
  add_executable(${exe} ${CMAKE_CURRENT_LIST_DIR}/${gate}_gate.cpp)
  target_link_libraries(${exe} PRIVATE music3_acoustic_loop_gate_lib)
  add_test(NAME ${exe} COMMAND ${exe})
  set_tests_properties(${exe} PROPERTIES LABELS "gate;acoustic;oracle;cpu" TIMEOUT 600
    FIXTURES_REQUIRED acoustic_loop_oracle)
endforeach()
foreach(gate loop_noise loop_rules)
  set(exe gate_acoustic_${gate})
  add_executable(${exe} ${CMAKE_CURRENT_LIST_DIR}/${gate}_gate.cpp)
  target_link_libraries(${exe} PRIVATE music3_acoustic_loop_gate_lib)
  add_test(NAME ${exe} COMMAND ${exe})
  set_tests_properties(${exe} PROPERTIES LABELS "gate;acoustic;cpu" TIMEOUT 120)
endforeach()

# `music3 acoustic`: two windows of the pair oracle case on its recorded noise (16 DiT evaluations, the dump), a run
# on drawn noise, then the named refusals with their exit codes.
set(al_root ${CMAKE_BINARY_DIR}/acoustic_loop_oracle)
set(al_ckpt ${al_root}/checkpoints/pair/seed0)
set(al_golden ${al_root}/goldens/pair/seed0.safetensors)
add_test(NAME cli_acoustic_recorded_noise COMMAND music3 acoustic --checkpoint ${al_ckpt} --frames ${al_golden}
  --noise ${al_golden} --steps 4 --dump ${CMAKE_CURRENT_BINARY_DIR}/cli_acoustic_dump.safetensors --json)
set_tests_properties(cli_acoustic_recorded_noise PROPERTIES LABELS "cpu;cli;acoustic" FIXTURES_REQUIRED acoustic_loop_oracle
  FIXTURES_SETUP acoustic_cli_dumped PASS_REGULAR_EXPRESSION "\"dit_forwards\": 16,.*\"noise\": \"recorded\".*\"length\": 516,[^}]*\"overlap\": 172")
# The dump is what `music3 vocode --latents` reads: 689 + 516 latents stitch to (689 - 258 + 516 - 86) * 512 samples.
add_test(NAME cli_acoustic_dump_vocodes COMMAND music3 vocode --checkpoint ${CMAKE_BINARY_DIR}/vocoder_oracle/checkpoints/odd/seed0
  --latents ${CMAKE_CURRENT_BINARY_DIR}/cli_acoustic_dump.safetensors --out ${CMAKE_CURRENT_BINARY_DIR}/cli_acoustic.wav --force --json)
set_tests_properties(cli_acoustic_dump_vocodes PROPERTIES LABELS "cpu;cli;acoustic;vocoder"
  FIXTURES_REQUIRED "acoustic_cli_dumped;vocoder_oracle" PASS_REGULAR_EXPRESSION "\"samples\": 440832")
add_test(NAME cli_acoustic_drawn_noise COMMAND music3 acoustic --checkpoint ${al_ckpt} --frames ${al_golden} --steps 1
  --seed 9)
set_tests_properties(cli_acoustic_drawn_noise PROPERTIES LABELS "cpu;cli;acoustic" FIXTURES_REQUIRED acoustic_loop_oracle
  PASS_REGULAR_EXPRESSION "250 frames in 2 window\\(s\\), 1 steps, drawn noise")
# The device arms on the CPU providers through the CLI (--arm device): the recorded-noise case, both arms device.
add_test(NAME cli_acoustic_device_arm COMMAND music3 acoustic --checkpoint ${al_ckpt} --frames ${al_golden}
  --noise ${al_golden} --steps 2 --arm device --json)
set_tests_properties(cli_acoustic_device_arm PROPERTIES LABELS "cpu;cli;acoustic" FIXTURES_REQUIRED acoustic_loop_oracle
  PASS_REGULAR_EXPRESSION "\"dit_arm\": \"device\",.*\"encoder_arm\": \"device\"")
function(acoustic_case name status regex)
  add_test(NAME cli_acoustic_${name} COMMAND ${PROJECT_SOURCE_DIR}/gates/cli/expect_failure.sh ${status} $<TARGET_FILE:music3> acoustic ${ARGN})
  set_tests_properties(cli_acoustic_${name} PROPERTIES LABELS "cpu;cli;acoustic;badinput" PASS_REGULAR_EXPRESSION "${regex}"
    FAIL_REGULAR_EXPRESSION "STATUS MISMATCH" FIXTURES_REQUIRED acoustic_loop_oracle)
endfunction()
acoustic_case(frame_width 5 "geometry: .*frame_hiddens rows are 128 wide, the condition encoder takes 64"
  --checkpoint ${al_ckpt} --frames ${al_root}/goldens/single/seed0.safetensors --steps 1)
acoustic_case(noise_size 5 "recorded noise: window 0 holds 1016 values, the window needs 128 x 689"
  --checkpoint ${al_ckpt} --frames ${al_golden} --noise ${al_root}/goldens/single/seed0.safetensors --steps 1)
acoustic_case(no_frames 5 "missing tensor 'frame_hiddens'"
  --checkpoint ${al_ckpt} --frames ${al_ckpt}/transformer/diffusion_pytorch_model.safetensors)
acoustic_case(refused_device 6 "device arm refused on device 'vulkan'" --checkpoint ${al_ckpt} --frames ${al_golden} --device vulkan)
acoustic_case(zero_steps 1 "--steps" --checkpoint ${al_ckpt} --frames ${al_golden} --steps 0)
acoustic_case(seed_with_noise 1 "--seed keys drawn noise" --checkpoint ${al_ckpt} --frames ${al_golden} --noise ${al_golden} --seed 1)
