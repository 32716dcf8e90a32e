# Runs last at `cmake --install`: the flat layout (lib/libQnnHtp.so,
# lib/dsp/, bin/<tool>) as relative symlinks into the SDK layout
# (lib/x86_64-linux-clang/, bin/x86_64-linux-clang/), so scripts written for
# either find the same files and there is one copy of each.
set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(platform x86_64-linux-clang)
function(link_into dir name)
  if(EXISTS "${root}/${dir}/${platform}/${name}")
    file(REMOVE_RECURSE "${root}/${dir}/${name}")
    file(CREATE_LINK "${platform}/${name}" "${root}/${dir}/${name}" SYMBOLIC)
    message(STATUS "Linking: ${root}/${dir}/${name} -> ${platform}/${name}")
  endif()
endfunction()
foreach(lib libQnnHtp.so libQnnSystem.so libcdsprpc.so dsp)
  link_into(lib ${lib})
endforeach()
file(GLOB tools RELATIVE "${root}/bin/${platform}" "${root}/bin/${platform}/*")
foreach(tool ${tools})
  link_into(bin ${tool})
endforeach()
